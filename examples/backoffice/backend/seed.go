package backend

import "time"

// Customers of the seed data.
const (
	Wang = "cust_wang"
	Lee  = "cust_lee"
)

// taipei is the shop's time zone; every time the backend reports is in it.
var taipei = time.FixedZone("Asia/Taipei", 8*60*60)

func at(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, taipei)
	if err != nil {
		panic(err)
	}
	return t
}

func atp(s string) *time.Time { t := at(s); return &t }

func str(s string) *string { return &s }

// seed fills a new shop:
//
//   - 5531 (Wang): coupon SAVE150 (150 off from 1,500), shipped free, paid 1,430;
//     li_1 Bluetooth headphones 1,200 delivered 9/23, li_2 Headphone case 380 pending.
//   - 5532 (Wang): no coupon; li_3 Wool scarf 900 and li_4 Gloves 700, both pending.
//   - 5533 (Wang): li_5 Desk lamp 1,100 in fulfilment, li_6 Bulb 120 pending.
//   - 5534 (Wang): li_7 Backpack 1,500 pending but refunded by rf_7001 on 10/2,
//     li_8 Water bottle 450 pending.
//   - 5535 (Wang): shipped free, no coupon; li_9 Running shoes 1,800 and
//     li_10 Socks 300, both delivered.
//   - 5536 (Wang): li_11 Rain jacket 1,290 shipped, in transit.
//   - 6001 (Lee): li_20 Mug 350 pending.
func (s *Shop) seed() {
	wangAddr := Address{Name: "Wang Xiao-ming", Line1: "No. 7, Sec. 1, Zhongxiao E. Rd.", Line2: str("8F"), City: "Taipei", PostalCode: "100", Country: "TW"}
	leeAddr := Address{Name: "Lee Mei-ling", Line1: "No. 12, Wenhua Rd.", City: "Hsinchu", PostalCode: "300", Country: "TW"}
	save150 := &Coupon{Code: "SAVE150", Description: "NT$150 off orders of NT$1,500+", Discount: 150, Threshold: 1500}

	add := func(o *order) {
		for _, li := range o.items {
			o.subtotal += li.Price * li.Quantity
		}
		o.paid = o.subtotal
		if o.coupon != nil {
			o.paid -= o.coupon.Discount
		}
		s.orders[o.id] = o
	}
	add(&order{id: "5531", customer: Wang, placedAt: at("2026-09-20 21:14"), coupon: save150, freeShipping: true, address: wangAddr,
		items: []*LineItem{
			{LineItemID: "li_1", Name: "Bluetooth headphones", Quantity: 1, Price: 1200, Status: Delivered, DeliveredAt: atp("2026-09-23 14:05")},
			{LineItemID: "li_2", Name: "Headphone case", Quantity: 1, Price: 380, Status: Pending},
		},
		shipments: []Shipment{{ShipmentID: "sh_3101", LineItemIDs: []string{"li_1"}, Status: "delivered", Carrier: "T-Cat",
			TrackingNumber: str("9012-3355-5531"), ShippedAt: atp("2026-09-22 09:30"), DeliveredAt: atp("2026-09-23 14:05")}},
	})
	add(&order{id: "5532", customer: Wang, placedAt: at("2026-10-01 12:40"), address: wangAddr,
		items: []*LineItem{
			{LineItemID: "li_3", Name: "Wool scarf", Quantity: 1, Price: 900, Status: Pending},
			{LineItemID: "li_4", Name: "Gloves", Quantity: 1, Price: 700, Status: Pending},
		},
	})
	add(&order{id: "5533", customer: Wang, placedAt: at("2026-10-03 08:55"), address: wangAddr,
		items: []*LineItem{
			{LineItemID: "li_5", Name: "Desk lamp", Quantity: 1, Price: 1100, Status: InFulfilment},
			{LineItemID: "li_6", Name: "Bulb", Quantity: 1, Price: 120, Status: Pending},
		},
		shipments: []Shipment{{ShipmentID: "sh_3102", LineItemIDs: []string{"li_5"}, Status: "preparing", Carrier: "T-Cat"}},
	})
	add(&order{id: "5534", customer: Wang, placedAt: at("2026-09-28 19:02"), address: wangAddr,
		items: []*LineItem{
			{LineItemID: "li_7", Name: "Backpack", Quantity: 1, Price: 1500, Status: Pending},
			{LineItemID: "li_8", Name: "Water bottle", Quantity: 1, Price: 450, Status: Pending},
		},
		refunds: []Refund{{RefundID: "rf_7001", OrderID: "5534", Amount: 1500, LineItemIDs: []string{"li_7"},
			Reason: "customer found it cheaper elsewhere", CreatedAt: at("2026-10-02 11:30"), Method: "card ending 4242"}},
	})
	add(&order{id: "5535", customer: Wang, placedAt: at("2026-09-10 10:20"), freeShipping: true, address: wangAddr,
		items: []*LineItem{
			{LineItemID: "li_9", Name: "Running shoes", Quantity: 1, Price: 1800, Status: Delivered, DeliveredAt: atp("2026-09-14 16:45")},
			{LineItemID: "li_10", Name: "Socks", Quantity: 1, Price: 300, Status: Delivered, DeliveredAt: atp("2026-09-14 16:45")},
		},
		shipments: []Shipment{{ShipmentID: "sh_3103", LineItemIDs: []string{"li_9", "li_10"}, Status: "delivered", Carrier: "T-Cat",
			TrackingNumber: str("9012-3355-5535"), ShippedAt: atp("2026-09-12 09:10"), DeliveredAt: atp("2026-09-14 16:45")}},
	})
	add(&order{id: "5536", customer: Wang, placedAt: at("2026-10-02 22:10"), address: wangAddr,
		items: []*LineItem{
			{LineItemID: "li_11", Name: "Rain jacket", Quantity: 1, Price: 1290, Status: Shipped},
		},
		shipments: []Shipment{{ShipmentID: "sh_3104", LineItemIDs: []string{"li_11"}, Status: "in_transit", Carrier: "T-Cat",
			TrackingNumber: str("9012-3355-5536"), ShippedAt: atp("2026-10-04 10:00")}},
	})
	add(&order{id: "6001", customer: Lee, placedAt: at("2026-10-02 15:30"), address: leeAddr,
		items: []*LineItem{
			{LineItemID: "li_20", Name: "Mug", Quantity: 1, Price: 350, Status: Pending},
		},
	})
}
